"""`portlint host`: the layout against this machine.

`procfs` reads the kernel's port settings and TCP listeners from a /proc tree; `check` compares
them with the layout and never reads /proc itself.
"""
