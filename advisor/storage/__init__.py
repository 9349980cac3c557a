"""What the service keeps: stored designs and handoffs (store: SQLite, or PostgreSQL
when replicated) and feedback filed against a design (feedback)."""
