"""The entries a text carries: every pattern matched at once, and how well each fits."""
