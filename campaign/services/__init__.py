"""Business logic of the campaign app: corpus import, runs, archive unpacking.

Views and API endpoints stay thin and call these functions.
"""
