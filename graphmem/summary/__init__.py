"""Task summaries: the middle tier of memory, one episodic summary per task between its full log and its facts."""

from graphmem.summary.draft import SUMMARY_SOURCE, SUMMARY_TAG, extractive_summary, summary_draft, summary_id

__all__ = ["SUMMARY_SOURCE", "SUMMARY_TAG", "extractive_summary", "summary_draft", "summary_id"]
