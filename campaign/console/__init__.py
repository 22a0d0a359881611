"""The organiser console: dashboard queries, organiser actions on runs, the results export."""
