"""A folder of photos scored (``ecoscore batch``): each photo read and scored on its own, in a pool
of processes on this machine or on a Dask cluster (``cluster.py``), its row written as soon as it
is done to a CSV or JSON-lines file that a stopped batch resumes (``results.py``), and the rows
as a workbook (``workbook.py``). The reading is the vision layer's; this is the job round it."""
