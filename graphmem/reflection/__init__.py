"""Hindsight reflection: after a task, an LLM distils facts and typed edges from the interaction log."""

from graphmem.reflection.service import ReflectionReport, ReflectionService

__all__ = ["ReflectionReport", "ReflectionService"]
