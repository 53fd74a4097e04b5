"""What happens to facts over time and at a person's hand: curation, archiving, expiry, retraction, purge, deletion."""
