// Turn ids are unique per namespace, not globally (035): the old global constraint goes. A no-op once gone.
DROP CONSTRAINT turn_id IF EXISTS
