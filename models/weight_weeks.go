package models
