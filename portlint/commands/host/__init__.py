"""`portlint host`: the layout against this machine.

`procfs` reads the kernel's port settings and TCP listeners from a /proc tree; `targets` lists
what of the layout is compared with them (every band, every range or port written outside its
band); `check` runs the host rules (portlint/rules/host_*.py, H codes) over both and never reads /proc
itself. Their problems are `portlint.model.problems.Problem`s, printed by the reporters of portlint/report/.
"""
