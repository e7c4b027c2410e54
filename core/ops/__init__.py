"""What operators see: request ids and JSON log lines (`log_context`), errors reported to
Sentry (`error_reports`), Prometheus metrics (`metrics`) and whether a process takes traffic
(`readiness`)."""
