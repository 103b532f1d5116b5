"""msgcli: validate, replay and read the message and event logs of LLM-agent frameworks."""

__version__ = "0.1.0"
