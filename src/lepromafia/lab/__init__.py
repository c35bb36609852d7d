"""The balance lab (issue 15): sweeps of strategy-bot games, on all cores or a Dask
cluster, and a report of what each setting does to the honest side's chances.

``sweep`` describes the games; ``games`` plays one and sums it up; ``runner`` spreads
them over processes or a cluster; ``stats`` and ``report`` turn the records into the
HTML page, CSV and JSON. The lab imports bots and engine, never the service or the web.
"""
