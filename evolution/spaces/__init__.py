"""spaces"""
