"""The ZeroMQ bus: typed messages, the XSUB/XPUB proxy, publishers, subscribers, snapshots."""
