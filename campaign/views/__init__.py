"""Views of the team portal (namespace ``portal``). Thin: services do the work."""
