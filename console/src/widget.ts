// The webchat widget: filled in by its own step.
