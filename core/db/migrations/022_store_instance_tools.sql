-- Whether the operator trusts a store with the tools that act on the whole instance (local_agent,
-- launch_cluster: its processes, backups, clusters). Off until the operator turns it on
-- (`PATCH /v1/stores/{id}` with the admin token, or `svc stores create --instance-tools`).
ALTER TABLE stores ADD COLUMN IF NOT EXISTS instance_tools boolean NOT NULL DEFAULT false;
