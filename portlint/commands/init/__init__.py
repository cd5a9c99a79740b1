"""`portlint init`: a starter config that describes the repository as it is.

`bands` groups production sites into one band per service, `copies` guesses frozen copies
(near-identical YAML files of one name), `starter` renders and writes `.portlint.yaml`.
"""
