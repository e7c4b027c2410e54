"""The API's plumbing, for every app's API: what every answer shares (`responses`: the error
shape, pages), the size-limited JSON parser (`parsers`) and the OpenAPI schema's refusals
(`schema`)."""
