"""LLM access over the OpenAI-compatible chat API."""

from graphmem.llm.client import LLMClient, Usage
from graphmem.llm.parse import extract_json, parse_output

__all__ = ["LLMClient", "Usage", "extract_json", "parse_output"]
