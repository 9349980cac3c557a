"""Answers built from a design: about the design on the table (followup), its plain
requests (verbs: bill of materials, report, racks), and counts for a cluster a question
names (stated)."""
