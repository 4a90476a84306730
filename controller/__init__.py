"""The stud poker table controller."""
