"""The physical build of a design: the floor, each link's medium by reach, the fabric as
an explicit graph built port by port, the checks on it, and the cabling plan.

- `floor`: racks, rows and run lengths, with the platform's reference-architecture defaults.
- `media`: the medium and parts of a link by its length and speed (DAC, multimode, DR, FR).
- `graph`: the wiring, port by port, from a sized topology's counts (never the count
  formulas), as a networkx graph or a stream of links.
- `checks`: ports used once, radix, every NIC port cabled, planes disjoint, max-flow bisection.
- `cabling`: the cabling plan as rows / CSV, and the media totals the BOM is built from.
"""
