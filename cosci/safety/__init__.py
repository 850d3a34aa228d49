"""Prompt-injection defences: quoting untrusted text (design.md#prompts)."""
