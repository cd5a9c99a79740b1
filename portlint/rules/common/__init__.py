"""What several rules share of their judgement and wording (the rules themselves are the modules
of portlint/rules/, one per rule)."""
