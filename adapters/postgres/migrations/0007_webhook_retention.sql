-- Webhook retention (docs/decisions/0018-data-out.md): settled messages (delivered or given up)
-- are pruned with their attempts 30 days after their event; this index finds them by age
-- without reading the outbox's pending messages.
create index webhook_messages_settled on webhook_messages (created_at) where status <> 'pending';
