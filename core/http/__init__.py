"""A request's way in, before any view: the client's address as far as it can be trusted
(`client_ip`) and the refusal of NUL characters (`nul_guard`)."""
