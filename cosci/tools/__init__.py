"""Literature and web tools for the tool loop, behind a registry with per-agent allowlists (issue 5)."""
