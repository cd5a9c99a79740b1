"""Code analyses the code-pattern rules share (PL601/PL602: sockets released before their port is used)."""
