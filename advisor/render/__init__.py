"""Renderers: each turns a `rules.models.Recommendation` into one output format.

They read only the recommendation (rendering is separate from deciding), so the same
recommendation looks the same in chat, the web widget, the CLI and the API.
`advisor.render.svg.topology_svg` draws the recommended topology as a standalone SVG.
"""
