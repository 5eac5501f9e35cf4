"""A collection's model server, spoken to in Label Studio's ML backend protocol (decision 0078,
docs/suggestions.md).

Plain modules, one concern each: `config` writes the labeling configuration from the vocabulary,
`answers` reads a /predict answer into boxes of the vocabulary (refusing what does not fit, with a
reason), `client` is the HTTP side (short timeouts, optional credentials, no redirects followed),
`secrets` seals the credential, `signing` makes the only URL the server is ever given: an image's
signed, expiring address. The services (`annotations.services.suggestions`) put them together.
"""
