"""Prompt-injection defences: quoting untrusted text (seed 003 "Untrusted Source Wrapping")."""
