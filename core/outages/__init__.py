"""What the site does while a part it relies on fails: Redis or the task broker skipped for a
short window (`cache`), a mark run again on a new database connection (`reconnect`), and the
503 for a database that cannot be reached (`unavailable`)."""
