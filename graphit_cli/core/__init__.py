"""The pure core: the memory model, ids, the revision chain, ordering, ranking, the
search's selection rule and the due-time gate. No I/O, no storage, no adapters: everything
here is a function of its arguments, so it is tested without a table."""
