"""The Z-Wave vocabulary, the ground floor every room above reads: command classes, device classes, property
names and the shapes of zwave-js-ui's wire data."""
