"""Slots in which an app higher up adds to a page, a record or an email of an app below it,
without that app importing the adding one: panels on pages (`panels`), data in a record
(`additions`), parts of an email (`email_parts`)."""
