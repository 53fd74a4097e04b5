"""Maintenance passes applied to the database in batches, the graph's communities and the dashboard's figures."""
