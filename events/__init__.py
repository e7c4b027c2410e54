"""The events app, tournaments and leagues: its formats for now; the Django parts come later."""
