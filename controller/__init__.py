"""Luck of the Irish table controller."""
