"""Abak Evolution: stack encoding (board), batched move generator (movegen), variant object."""
