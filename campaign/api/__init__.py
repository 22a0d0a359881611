"""REST API (namespace ``api``): campaigns, runs, status and results, with the portal's permissions."""
