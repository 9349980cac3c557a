"""'Talk to an engineer': the request recorded and answered truthfully (handoff), and the
destinations it is sent to (destinations: Slack, email, webhook)."""
