// Memory ids are unique per namespace, not globally (033): the old global constraint goes. A no-op once gone.
DROP CONSTRAINT memory_id IF EXISTS
