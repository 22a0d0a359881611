"""The error-insertion lab in the web app: an organiser uploads treebanks, a task runs the library's lab."""
