"""`portlint map`: the layout drawn as a picture.

`rows` decides what goes where (one row per band, with marks), `axis` maps ports to columns,
`render` draws the rows with rich for the terminal and HTML, `svg` exports the same picture as SVG.
"""
