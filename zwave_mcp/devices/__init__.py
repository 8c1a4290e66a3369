"""The device domain: devices from nodes, names → devices, intents → value writes, state → sentences.

Pure: no MQTT, no asyncio, no I/O (except reading the alias file in `resolve.load_aliases`).
"""
