"""What the DataLoader is made of: collation, fetching, workers and the way their batches come back."""
