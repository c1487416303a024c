"""The 8-host Chakra config the limit tests and the Chakra scale benchmark run: a leaf-spine of 2 racks of 4 hosts,
one Chakra application over a traceset of 8 files."""


def chakra_8host(name, traceset):
    """The config text, SimulationName @p name, Traceset @p traceset."""
    return """simulation:
  SimulationName: %s
topology:
  type: leaf-spine
  hosts_per_rack: 4
  racks: 2
  spines: 2
  DataRate: {leaf: 400Gbps, spine: 400Gbps}
  Delay: {leaf: 500ns, spine: 500ns}
applications:
  - type: Chakra
    Traceset: %s
    ChakraConfiguration:
      NumOfChakraFiles: 8
""" % (name, traceset)
