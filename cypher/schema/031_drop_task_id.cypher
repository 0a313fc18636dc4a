// Task ids are unique per namespace, not globally (034): the old global constraint goes. A no-op once gone.
DROP CONSTRAINT task_id IF EXISTS
