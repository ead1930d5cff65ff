"""Human- and machine-readable reports: herd-style model output, tables, JSON Lines."""
