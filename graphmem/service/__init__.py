"""The service layer: the one entry point of every front end."""

from graphmem.service.memory_service import MemoryService, parse_items
from graphmem.service.tasks import TaskService

__all__ = ["MemoryService", "TaskService", "parse_items"]
