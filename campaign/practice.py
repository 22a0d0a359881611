"""The open demo's practice campaign as the campaign rules know it: its slug and its published draw key.

The one public key (:mod:`campaign.demo_open` builds the campaign with it): :mod:`campaign.subsets` refuses it
for any other campaign. Here, apart from both, so that the rules do not import the demo builder.
"""
import hashlib

OPEN_SLUG = "ud-french-practice-demo"
# The keyed draw with a key written here, so that the shipped dev-check.zip holds the development
# sample of every load. A practice campaign only: anyone can replay this draw, which is why a real
# campaign's key is drawn from the operating system's secure source and kept from the teams.
DRAW_KEY = hashlib.sha256(b"parseval open demo: a published key, for practice only").hexdigest()
