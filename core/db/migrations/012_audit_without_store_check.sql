-- The audit log is written on every tool call, and checking each record's store_id against stores
-- (a foreign key: a lookup and a row lock per record) was a fifth of what a read's record cost the
-- database. Records are written only by the core, with the store of the credential that made the
-- call (core/tools/call.ts), and stores are never deleted, so the check guarded nothing.
ALTER TABLE tool_executions DROP CONSTRAINT IF EXISTS tool_executions_store_id_fkey;
