// Tasks per namespace.
CREATE INDEX task_namespace IF NOT EXISTS FOR (t:Task) ON (t.namespace)
