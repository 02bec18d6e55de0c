"""An entry's verification state: judged from its runs, stored, judged again, per release."""
