// Reflection queue: ended tasks waiting for reflection (the batched worker polls this).
CREATE INDEX task_reflection_status IF NOT EXISTS FOR (t:Task) ON (t.reflection_status)
